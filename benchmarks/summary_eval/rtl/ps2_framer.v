// Finds 3-byte packets in a byte stream; the first byte has bit 3 set.
module ps2_framer (
    input  wire       clk,
    input  wire       reset,
    input  wire [7:0] in_byte,
    output wire       done
);
    localparam [1:0] SEARCH = 2'd0, GOT1 = 2'd1, GOT2 = 2'd2, DONE = 2'd3;

    reg [1:0] state;

    always @(posedge clk) begin
        if (reset)
            state <= SEARCH;
        else begin
            case (state)
                SEARCH:  state <= in_byte[3] ? GOT1 : SEARCH;
                GOT1:    state <= GOT2;
                GOT2:    state <= DONE;
                default: state <= in_byte[3] ? GOT1 : SEARCH;
            endcase
        end
    end

    assign done = (state == DONE);
endmodule

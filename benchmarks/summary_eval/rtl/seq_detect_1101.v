// Moore detector for 1101, non-overlapping.
module seq_detect_1101 (
    input  wire clk,
    input  wire reset,
    input  wire bit_in,
    output wire detected
);
    localparam [2:0] S0 = 3'd0, S1 = 3'd1, S11 = 3'd2, S110 = 3'd3, S1101 = 3'd4;

    reg [2:0] state;

    always @(posedge clk) begin
        if (reset)
            state <= S0;
        else begin
            case (state)
                S0:      state <= bit_in ? S1   : S0;
                S1:      state <= bit_in ? S11  : S0;
                S11:     state <= bit_in ? S11  : S110;
                S110:    state <= bit_in ? S1101 : S0;
                S1101:   state <= bit_in ? S1   : S0;
                default: state <= S0;
            endcase
        end
    end

    assign detected = (state == S1101);
endmodule

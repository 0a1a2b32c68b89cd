// Mealy detector for the serial pattern 1-0-1, overlapping matches allowed.
module seq_detect_101 (
    input  wire clk,
    input  wire rst_n,
    input  wire din,
    output wire match
);
    localparam IDLE = 2'd0, GOT1 = 2'd1, GOT10 = 2'd2;

    reg [1:0] state, next_state;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            state <= IDLE;
        else
            state <= next_state;
    end

    always @(*) begin
        case (state)
            IDLE:    next_state = din ? GOT1 : IDLE;
            GOT1:    next_state = din ? GOT1 : GOT10;
            GOT10:   next_state = din ? GOT1 : IDLE;
            default: next_state = IDLE;
        endcase
    end

    assign match = (state == GOT10) && din;
endmodule

// 4-bit universal shift register.
// mode: 00 hold, 01 shift right, 10 shift left, 11 parallel load.
module univ_shift4 (
    input  wire       clk,
    input  wire       clear,
    input  wire [1:0] mode,
    input  wire       ser_right,
    input  wire       ser_left,
    input  wire [3:0] d,
    output reg  [3:0] q
);
    always @(posedge clk) begin
        if (clear)
            q <= 4'b0000;
        else begin
            case (mode)
                2'b00: q <= q;
                2'b01: q <= {ser_right, q[3:1]};
                2'b10: q <= {q[2:0], ser_left};
                2'b11: q <= d;
            endcase
        end
    end
endmodule

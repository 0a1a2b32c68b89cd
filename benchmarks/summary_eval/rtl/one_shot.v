// Non-retriggerable one-shot: one fixed-width pulse per trigger assertion.
module one_shot #(
    parameter WIDTH = 5
) (
    input  wire clk,
    input  wire rst_n,
    input  wire trigger,
    output wire pulse
);
    localparam [1:0] IDLE = 2'd0, FIRE = 2'd1, REARM = 2'd2;

    reg [1:0] state;
    reg [3:0] n;

    always @(posedge clk) begin
        if (!rst_n) begin
            state <= IDLE;
            n     <= 4'd0;
        end else begin
            case (state)
                IDLE:    if (trigger) begin state <= FIRE; n <= 4'd0; end
                FIRE:    if (n == WIDTH - 1) state <= REARM;
                         else n <= n + 4'd1;
                REARM:   if (!trigger) state <= IDLE;
                default: state <= IDLE;
            endcase
        end
    end

    assign pulse = (state == FIRE);
endmodule

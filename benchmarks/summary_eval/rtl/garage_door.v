module garage_door (
    input  wire clk,
    input  wire rst_n,
    input  wire button,
    input  wire at_top,
    input  wire at_bottom,
    input  wire obstacle,
    output wire motor_up,
    output wire motor_down
);
    localparam CLOSED = 2'd0, OPENING = 2'd1, OPEN = 2'd2, CLOSING = 2'd3;

    reg [1:0] state_q, state_d;

    always @(posedge clk or negedge rst_n)
        if (!rst_n) state_q <= CLOSED;
        else        state_q <= state_d;

    always @(*) begin
        state_d = state_q;
        case (state_q)
            CLOSED:  if (button) state_d = OPENING;
            OPENING: if (at_top) state_d = OPEN;
            OPEN:    if (button) state_d = CLOSING;
            CLOSING: if (obstacle) state_d = OPENING;
                     else if (at_bottom) state_d = CLOSED;
        endcase
    end

    assign motor_up   = (state_q == OPENING);
    assign motor_down = (state_q == CLOSING);
endmodule
